"""``python -m traindx.engine`` is the ``traindx`` command."""

from .frontends.cli import main

main(prog_name="traindx")
