"""Write JupyterLab overrides into the virtualenv: no news feed, no update check (offline first)."""

from memlib.browser import write_lab_overrides

print(f"JupyterLab overrides: {write_lab_overrides()}")
