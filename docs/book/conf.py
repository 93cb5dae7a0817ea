"""Sphinx configuration of the book: the executed notebooks as a static site (`make book`).

scripts/build_book.py copies this directory, the README, the notebooks (executed where it can)
and the benchmark tables into build/book-src/ and runs Sphinx on it into build/book/. Nothing here
executes a notebook (nb_execution_mode = "off"): outputs come from `make run`.
"""

project = "memlib notebooks"
author = "memlib notebooks contributors"
copyright = "memlib notebooks contributors (MIT)"

extensions = ["myst_nb"]
nb_execution_mode = "off"  # the notebooks were executed by `make run`; never run them here
nb_ipywidgets_js = {}  # no widget manager from a CDN: widgets are rendered statically instead
nb_merge_streams = True  # one block per cell for stdout, however many print() calls it made
nb_render_markdown_format = "myst"  # markdown outputs may hold a ```mermaid fence (a graph drawing)
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3  # [text](#a-heading) links inside a page resolve
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "book-manifest.json"]

html_theme = "furo"
html_title = "memlib notebooks"
html_static_path = ["_static"]
html_css_files = ["book.css"]
# classic scripts, not ES modules: module scripts do not load from file:// (no network needed)
html_js_files = ["mermaid.min.js", "book.js"]
html_copy_source = False
html_show_sourcelink = False
# Search summaries are fetched page by page, which a browser refuses from file://; the result
# list itself (searchindex.js, loaded as a script) works offline from disk.
html_show_search_summary = False
html_theme_options = {"navigation_with_keys": True}
