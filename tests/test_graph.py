"""The concept graph: type-compatibility edges, co-usage edges, neighbours, GraphML."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from arcmemo.memory.schema.concept import Concept
from arcmemo.memory.schema.merge_rule import normalize
from arcmemo.memory.views.graph import build_graph, describe_link, neighbours, write_graphml


def ps(name, **fields) -> Concept:
    return Concept(**normalize({"name": name, **fields}), content_hash="")


CONCEPTS = [
    ps("extract objects", kind="routine", output_typing="list[object]",
       parameters=[{"name": "grid", "typing": "grid"},
                   {"name": "criteria", "typing": "selection criteria := Callable[[object], bool]"}],
       used_in=["t1", "t2", "t3"]),
    ps("sort objects", kind="routine", output_typing="List[Object]",
       parameters=[{"name": "objects", "typing": " list[object] "}], used_in=["t2", "t3"]),
    ps("is largest", kind="routine", output_typing="selection criteria", used_in=["t3"]),
    ps("recolor", kind="routine", output_typing="grid | object",
       parameters=[{"name": "target", "typing": "object | list[object]"}], used_in=["t9"]),
    ps("crop", kind="routine", output_typing="grid", parameters=[{"name": "grid", "typing": "grid"}]),
    ps("split grid", kind="structure", output_typing="grid", used_in=["t1"]),
]


def edges(graph, kind):
    return sorted((a, b, d.get("typing", d.get("weight"))) for a, b, d in graph.edges(data=True) if d["kind"] == kind)


def test_type_edges_connect_outputs_to_matching_parameters():
    g = build_graph(CONCEPTS)
    # case and spacing do not matter; `a | b` offers each alternative; `name := def` counts as name
    assert set(edges(g, "type")) == {
        ("crop", "extract objects", "grid"),
        ("extract objects", "recolor", "list[object]"),
        ("extract objects", "sort objects", "list[object]"),
        ("is largest", "extract objects", "selection criteria"),
        ("recolor", "crop", "grid"),
        ("recolor", "extract objects", "grid"),
        ("sort objects", "recolor", "list[object]"),
    }
    # structures produce no type edges; a routine is not linked to itself
    assert not any(a == "split grid" for a, _, _ in edges(g, "type"))
    assert not g.has_edge("crop", "crop") and not g.has_edge("sort objects", "sort objects")


def test_co_usage_edges_count_shared_tasks():
    g = build_graph(CONCEPTS)
    assert edges(g, "co_usage") == [
        ("extract objects", "is largest", 1),
        ("extract objects", "sort objects", 2),
        ("extract objects", "split grid", 1),
        ("is largest", "sort objects", 1),
    ]


def test_neighbours_and_missing_concept():
    g = build_graph(CONCEPTS)
    rows = neighbours(g, "sort objects")
    assert [(r["kind"], r["name"], r["direction"]) for r in rows] == [
        ("type", "extract objects", "in"), ("type", "recolor", "out"),
        ("co_usage", "extract objects", "both"), ("co_usage", "is largest", "both"),
    ]
    assert rows[2]["weight"] == 2
    with pytest.raises(LookupError):
        neighbours(g, "nope")


def test_graphml_round_trip(tmp_path):
    g = build_graph(CONCEPTS)
    path = tmp_path / "memory.graphml"
    write_graphml(g, path)
    back = nx.read_graphml(path)
    assert set(back.nodes) == set(g.nodes) and back.number_of_edges() == g.number_of_edges()
    assert back.nodes["extract objects"]["uses"] == 3 and back.nodes["split grid"]["kind"] == "structure"


def test_links_read_as_sentences():
    rows = neighbours(build_graph(CONCEPTS), "sort objects")
    assert [describe_link("sort objects", r) for r in rows] == [
        "'extract objects' returns list[object], which 'sort objects' takes as its parameter 'objects'",
        "'sort objects' returns list[object], which 'recolor' takes as its parameter 'target'",
        "'sort objects' and 'extract objects' were used together in 2 tasks",
        "'sort objects' and 'is largest' were used together in 1 task",
    ]


# -- one concept's neighbours without the whole graph (memory/views/links.py) ---------------------------

def whole_graph_expand(concepts, chosen, limit):
    """selection's expand as it was before the link index: ranked over the whole graph."""
    from collections import Counter, defaultdict

    graph = build_graph(concepts)
    producers, seen = Counter(), set()
    for source, _, attrs in graph.edges(data=True):
        if attrs["kind"] == "type" and (source, attrs["typing"]) not in seen:
            seen.add((source, attrs["typing"]))
            producers[attrs["typing"]] += 1
    picked, score = {c.name for c in chosen}, defaultdict(float)
    for name in picked:
        for row in neighbours(graph, name) if name in graph else []:
            if row["name"] in picked:
                continue
            if row["kind"] == "co_usage":
                score[row["name"]] += row["weight"]
            elif row["direction"] == "in":
                score[row["name"]] += 1.0 / max(producers[row["typing"]], 1)
    return sorted(score, key=lambda n: (-score[n], n))[:limit]


def sixty_concepts() -> list[Concept]:
    """The edge cases above and 54 synthetic concepts sharing tasks from a pool of 12."""
    import random

    from benchmarks.synthetic import synthetic_concepts

    rng = random.Random(7)
    made = []
    for data in synthetic_concepts(54, seed=3):
        data["used_in"] = rng.sample([f"t{i}" for i in range(12)], rng.randint(0, 3))
        made.append(ps(**{k: v for k, v in data.items() if k != "format"}))
    return CONCEPTS + made


@pytest.fixture(scope="module")
def shipped() -> list[Concept]:
    from pathlib import Path

    from arcmemo.memory.store.reader import open_reader

    with open_reader(str(Path(__file__).resolve().parents[1] / "memory.db")) as memory:
        return memory.list("ps")


@pytest.mark.parametrize("memory", ["sixty", "shipped"])
def test_the_link_index_gives_every_concepts_neighbours_as_the_whole_graph_does(memory, shipped):
    from arcmemo.memory.views.links import LinkIndex

    concepts = sixty_concepts() if memory == "sixty" else shipped
    graph, index = build_graph(concepts), LinkIndex.of(concepts)
    assert len(concepts) >= 36 and graph.number_of_edges() > 100
    for c in concepts:
        assert index.neighbours(c.name) == neighbours(graph, c.name), c.name
    with pytest.raises(LookupError, match="no ps concept named 'nope'"):
        index.neighbours("nope")


def test_a_typings_producers_are_counted_as_the_whole_graph_counts_them():
    from collections import Counter

    from arcmemo.memory.views.links import LinkIndex, alternatives

    concepts = sixty_concepts() + [
        ps("loop", kind="routine", output_typing="loop type", parameters=[{"name": "x", "typing": "loop type"}]),
        ps("feeder", kind="routine", output_typing="loop type"),       # loop is its only consumer, and feeds itself
        ps("orphan", kind="routine", output_typing="nobody takes this")]
    graph, index = build_graph(concepts), LinkIndex.of(concepts)
    sources = Counter(typing for _, typing in {(a, d["typing"]) for a, _, d in graph.edges(data=True)
                                               if d["kind"] == "type"})
    typings = {t for c in concepts for t in alternatives(c.output_typing)}
    assert {t: index.producers(t) for t in typings} == {t: sources[t] for t in typings}
    assert index.producers("loop type") == 1 and index.producers("nobody takes this") == 0


@pytest.mark.parametrize("memory", ["sixty", "shipped"])
def test_expand_ranks_as_it_did_over_the_whole_graph(memory, shipped):
    import random

    from arcmemo.memory.views.links import LinkIndex
    from arcmemo.selection.expand import expand_neighbours

    concepts = sixty_concepts() if memory == "sixty" else shipped
    index, rng = LinkIndex.of(concepts), random.Random(11)
    for _ in range(40):
        chosen, limit = rng.sample(concepts, rng.randint(1, 4)), rng.randint(1, 10)
        expected = whole_graph_expand(concepts, chosen, limit)
        assert [c.name for c in expand_neighbours(concepts, chosen, limit, links=index)] == expected
        assert [c.name for c in expand_neighbours(concepts, chosen, limit)] == expected


def test_the_links_read_from_the_database_are_those_of_the_concepts(tmp_path):
    from arcmemo.memory.store import Memory
    from arcmemo.memory.store.reader import SQLiteReader, open_reader
    from arcmemo.memory.views.links import LinkIndex

    with Memory(tmp_path / "m.db") as memory:
        for c in sixty_concepts():
            memory.add(c.to_data(), actor="a")
        memory.merge({"format": "oe", "situation": "s", "suggestion": "t", "used_in": ["t1"]}, actor="a")
    for reader in (open_reader(str(tmp_path / "m.db")), Memory(tmp_path / "m.db", read_only=True)):
        with reader:
            concepts, read = reader.list("ps"), reader.links()
            whole = LinkIndex.of(concepts)
            assert [read.neighbours(c.name) for c in concepts] == [whole.neighbours(c.name) for c in concepts]
            assert read.concept("crop").id == reader.find("crop").id
    assert isinstance(open_reader(str(tmp_path / "m.db")), SQLiteReader)


def test_the_graph_command_does_not_build_the_whole_graph(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from arcmemo.cli import cli
    from arcmemo.memory.store import Memory
    from arcmemo.memory.views import graph

    with Memory(tmp_path / "m.db") as memory:
        for c in CONCEPTS:
            memory.add(c.to_data(), actor="a")
    monkeypatch.setattr(graph, "build_graph", lambda concepts: pytest.fail("built the whole graph"))
    result = CliRunner().invoke(cli, ["concepts", "graph", "Sort Objects", "--json", "--db", str(tmp_path / "m.db")])
    assert result.exit_code == 0, result.output
    assert [r["name"] for r in json.loads(result.output)] == ["extract objects", "recolor", "extract objects",
                                                              "is largest"]


def test_a_memorys_links_are_prepared_once_per_revision_and_only_for_what_changed(tmp_path, monkeypatch):
    from arcmemo.memory.store import Memory
    from arcmemo.memory.views import library as library_module

    made = []
    monkeypatch.setattr(library_module, "links_of",
                        lambda c, real=library_module.links_of: made.append(c.name) or real(c))
    with Memory(tmp_path / "m.db") as memory:
        for c in CONCEPTS:
            memory.add(c.to_data(), actor="a")
        first = library_module.library(memory, "ps").links
        assert len(made) == len(CONCEPTS) and library_module.library(memory, "ps").links is first
        memory.merge({"name": "crop", "used_in": ["t3"]}, actor="a")
        made.clear()
        links = library_module.library(memory, "ps").links
        assert made == ["crop"]                                   # the others' links carried over
        assert ("co_usage", "crop") in {(r["kind"], r["name"]) for r in links.neighbours("is largest")}
