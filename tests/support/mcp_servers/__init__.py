"""Small MCP servers used by the test-suite.

Each module is a script run over stdio with the test interpreter
(``sys.executable``); see ``tests/mcp_fixtures.py`` for how they are started.
"""
