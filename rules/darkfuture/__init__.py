"""Dark Future: the alternate CON damage system for pedestrians and drivers."""
