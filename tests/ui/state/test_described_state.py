"""The described view's state: `s` cycles the kinds; remembered and read back without trusting it."""
from tui_insight.ui.state.described import DescribedState


def test_s_cycles_every_kind_audio_mesh_projector_and_back():
    state = DescribedState()
    seen = [state.section]
    for _ in range(4):
        state = state.next_section()
        seen.append(state.section)
    assert seen == ["all", "audio", "mesh", "projector", "all"]
    assert DescribedState("mesh").shows("mesh") and not DescribedState("mesh").shows("audio")
    assert all(DescribedState().shows(kind) for kind in ("audio", "mesh", "projector"))


def test_remembered_and_read_back_without_trusting_it():
    assert DescribedState.from_json(DescribedState("projector").to_json()) == DescribedState("projector")
    assert DescribedState.from_json({"section": "video"}) == DescribedState()
    assert DescribedState.from_json([1]) == DescribedState()


def test_points_and_embeddings_wrap_around_and_a_new_embedding_starts_at_its_first_point():
    state = DescribedState(point=9)
    assert state.move_point(1, 10).point == 0 and state.move_point(-1, 10).point == 8
    assert DescribedState().move_point(-1, 10).point == 9 and DescribedState().move_point(1, 0) == DescribedState()
    moved = DescribedState(embedding=1, point=5).move_embedding(1, 2)
    assert (moved.embedding, moved.point) == (0, 0)
    assert DescribedState.from_json({"embedding": -1, "point": "3"}) == DescribedState()
    assert DescribedState.from_json(DescribedState("all", 1, 7).to_json()) == DescribedState("all", 1, 7)
