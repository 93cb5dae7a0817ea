"""Suite-wide test ordering."""


def pytest_collection_modifyitems(config, items):
    """The book test builds from the notebooks the offline runs write: run it after them (with
    `--dist loadgroup` both are in the "main" group, so one worker runs them in this order)."""
    items.sort(key=lambda item: item.path.name == "test_book.py")
