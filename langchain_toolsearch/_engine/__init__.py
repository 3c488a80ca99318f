"""The private engine behind the middleware and the node (not a public API).

Modules: ``scope`` (the per-request value), ``resolve`` and ``runs`` (per-request tool
sources), ``views``, ``access`` (filter and storage per request), ``search``, ``load``,
``guard`` (the execution guard), ``binding``, ``drive``, ``engine``, ``thread_state``
(unload, clear, stats), ``shell`` (what the middleware and the node share), ``wiring``.
"""
