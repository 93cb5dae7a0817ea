"""Write JupyterLab overrides into the virtualenv: no news feed, no update check (offline first)."""

import json
import sys
from pathlib import Path

LAB_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}
}

path = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
path.parent.mkdir(parents=True, exist_ok=True)
current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
current.update(LAB_OVERRIDES)
path.write_text(json.dumps(current, indent=2) + "\n", encoding="utf-8")
print(f"JupyterLab overrides: {path}")
