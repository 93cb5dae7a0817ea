"""`python -m memlib [NOTEBOOK ...]`: execute notebooks (default: all) and write records.json."""

from memlib.testing import main

main()
