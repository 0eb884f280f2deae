"""A compiled LangGraph graph that remembers through ``OracleAgentMemoryStore``.

The graph's node reads what the store knows about the user and writes a new memory; the
same memories are then visible to the rest of the library (here ``client.search``), with
the item's value as metadata and none of the store's bookkeeping.
"""

from __future__ import annotations

from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.integrations.langgraph_store import OracleAgentMemoryStore


class State(TypedDict):
    user_id: str
    message: str
    recalled: list[str]


def remember(state: State, *, store: BaseStore) -> dict[str, list[str]]:
    namespace = ("users", state["user_id"], "memories")
    recalled = [item.value["text"] for item in store.search(namespace, query=state["message"],
                                                            limit=3)]
    store.put(namespace, f"note-{len(recalled)}", {"text": state["message"]})
    return {"recalled": recalled}


def main() -> None:
    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", END)
    with OracleAgentMemory(connection=":memory:") as client:
        store = OracleAgentMemoryStore(client, index={"fields": ["text"]},
                                       ttl={"default_ttl": 60 * 24 * 30})
        graph = builder.compile(store=store)
        graph.invoke({"user_id": "dana", "message": "I am allergic to peanuts.",
                      "recalled": []})
        second = graph.invoke({"user_id": "dana", "message": "Suggest a snack without nuts.",
                               "recalled": []})
        print("recalled by the graph:", second["recalled"])
        for result in client.search("peanut allergy", user_id="dana"):
            print(f"client.search: {result.content!r} metadata={result.metadata}")


if __name__ == "__main__":
    main()
