from collections.abc import Iterable

import pytest
from langchain_core.messages import HumanMessage
from langgraph.store.memory import InMemoryStore

from memlib.checks import (
    check_int,
    check_items,
    check_kind,
    check_messages,
    check_namespace,
    check_number,
    check_store,
    check_str,
    check_user_id,
    namespace_for,
)


def test_user_id_rules_name_the_value():
    assert check_user_id("ana") == "ana"
    with pytest.raises(TypeError, match="42"):
        check_user_id(42)
    for bad in ("", " ana", "a.b", "a\x00b"):
        with pytest.raises(ValueError, match="user_id"):
            check_user_id(bad)


def test_namespace_refuses_a_bare_string_and_bad_labels():
    assert check_namespace(["a", "b"]) == ("a", "b")
    with pytest.raises(TypeError, match="'ns'"):
        check_namespace("ns")
    with pytest.raises(ValueError, match="at least one"):
        check_namespace(())
    with pytest.raises(ValueError, match="'a.b'"):
        check_namespace(("a.b",))
    assert namespace_for(("users", "{user_id}", "facts"), "ana") == ("users", "ana", "facts")
    with pytest.raises(TypeError, match="int"):
        namespace_for(("users", "{user_id}"), 7)


def test_scalars_and_containers():
    assert check_str("x", "name") == "x"
    with pytest.raises(ValueError, match="name"):
        check_str("  ", "name")
    with pytest.raises(TypeError, match="bool"):
        check_int(True, "k")
    with pytest.raises(ValueError, match=">= 1"):
        check_int(0, "k", minimum=1)
    with pytest.raises(ValueError, match="finite"):
        check_number(float("nan"), "x")
    check_store(InMemoryStore())
    with pytest.raises(TypeError, match="NoneType"):
        check_store(None)
    with pytest.raises(TypeError, match="str"):
        check_messages("hi")
    with pytest.raises(TypeError, match=r"messages\[1\]"):
        check_messages([HumanMessage("a"), "b"])


def test_kinds_and_collections_name_the_value_and_what_was_expected():
    assert check_kind(3, int, "k", "an int") == 3
    with pytest.raises(TypeError, match=r"^k must be an int, got str: '3'$"):
        check_kind("3", int, "k", "an int")
    assert check_items((1, 2), "ids", "a list of ids") == (1, 2)
    gen = (i for i in range(2))
    assert check_items(gen, "ids", "a list of ids", kind=Iterable) is gen
    for bad in ("ab", b"ab", {"a": 1}, 5, (i for i in range(2))):  # a generator is no Sequence
        with pytest.raises(
            TypeError, match=f"^ids must be a list of ids, got {type(bad).__name__}"
        ):
            check_items(bad, "ids", "a list of ids")


# Every public name gets bad input in a test named test_bad_input_<name> (any file in tests/).
# Names still listed here have no such test yet; remove a name when its test lands.
NOT_YET: set[str] = set()  # every public name has one now


def _bad_input_tests() -> set[str]:
    import re
    from pathlib import Path

    found = set()
    here = Path(__file__).parent
    # memlib.OfflineChatModel's bad-input test lives with the offline model, in offline_model/tests
    for path in [
        *here.glob("test_*.py"),
        *(here.parent / "offline_model" / "tests").glob("test_*.py"),
    ]:
        found |= set(re.findall(r"^def test_bad_input_(\w+)\(", path.read_text(), re.M))
    return found


def test_every_public_name_has_a_bad_input_test():
    import memlib

    tested = _bad_input_tests()
    missing = sorted(n for n in memlib.__all__ if n not in tested and n not in NOT_YET)
    assert not missing, f"public names without a test_bad_input_<name>: {missing}"
    done = sorted(NOT_YET & tested)
    assert not done, f"remove {done} from NOT_YET: their bad-input tests exist"
