"""``python -m traindx.engine`` is the ``traindx`` command."""

from .cli import main

main(prog_name="traindx")
