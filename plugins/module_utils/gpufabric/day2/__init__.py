"""Day-2 operations on a planned cluster: drain state and its safety, hot spares, growth deltas."""
