"""A generic Python interpreter over abstract values: it knows Python, not torch."""
