"""Examples that use langchain-toolsearch (not part of the installed package)."""
