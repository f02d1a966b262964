"""Language: how people describe training problems, as data (engine/understand.py reads it)."""
