from __future__ import annotations

import pytest

from editor.tests.support.ui_app import UIClient


@pytest.fixture
def ui() -> UIClient:
    return UIClient()
