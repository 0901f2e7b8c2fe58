"""The HTTP edge: conditional answers and their cache, what one user may create, throttles, checks on what a client
sent, services down, the middleware, health checks, and path converters."""
