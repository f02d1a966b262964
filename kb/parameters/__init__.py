"""Parameters: every threshold, as data."""
