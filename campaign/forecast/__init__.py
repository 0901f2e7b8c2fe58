"""The forecast: a character's recovery forecast (`forecasts`), the party's recovery (`recovery`) and what one
user's forecasts may cost the server (`forecast_budget`)."""
