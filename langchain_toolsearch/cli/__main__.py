"""``python -m langchain_toolsearch.cli``: the ``toolsearch`` command."""

from langchain_toolsearch.cli import main

raise SystemExit(main())
