"""The private engine behind the middleware and the node (not a public API).

* :mod:`.scope`: the per-request value (``RequestScope``) and its builder.
* :mod:`.resolve`: per-request tool sources, run safely, bad tools dropped.
* :mod:`.views`: the static library / index chained with a request's tools.
* :mod:`.access`: the filter and the storage, asked per request (what the
  step helpers below get; none of them sees the engine).
* :mod:`.search`: ``search_tools`` with refill up to ``top_k``.
* :mod:`.load`: ``load_tool``, suggestions, auto-load.
* :mod:`.guard`: the execution guard of tool steps.
* :mod:`.binding`: binding order, tools bound on the agent, bindable schemas.
* :mod:`.drive`: the one effect type engine logic yields, and its sync and async driver.
* :mod:`.engine`: ``Engine``, one question per step.
* :mod:`.shell`: what the middleware and the node share.
* :mod:`.wiring`: the node's graph wiring checks.
"""
