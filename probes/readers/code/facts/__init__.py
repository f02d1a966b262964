"""One module per ``code:*`` evidence source (kb/sources.yaml): what the interpretation recorded,
turned into findings."""
