"""Private helpers shared across the package's subpackages (not a public API).

* :mod:`.bridge`: the one bridge from synchronous code to awaitables.
* :mod:`.bulk`: pausing the garbage collector while a library or index is built.
* :mod:`.weakmemo`: values remembered per live object, by identity.
* :mod:`.failures`: failing sources, redacted, logged once per cause, counted.
* :mod:`.store_flow`: logic over a LangGraph ``BaseStore`` written once, run sync or async.
"""
