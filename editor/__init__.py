"""The editor distribution's folder: a package only so its tests are ``editor.tests.*``.

pytest names test modules by their package path; this keeps the editor's tests
apart from the core's ``tests.*`` in one run (``pytest tests editor/tests``).
The distribution's package is ``editor/langchain_toolsearch_editor``.
"""
