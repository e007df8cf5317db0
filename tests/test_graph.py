"""The concept graph: type-compatibility edges, co-usage edges, neighbours, GraphML."""

from __future__ import annotations

import networkx as nx
import pytest

from arcmemo.memory.data import normalize
from arcmemo.memory.graph import build_graph, describe_link, neighbours, write_graphml
from arcmemo.memory.models import Concept


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
