"""``python -m privcert``: the same as the ``privcert`` command."""

from privcert.cli import main

main()
