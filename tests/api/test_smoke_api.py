from tests.conftest import Table


def test_a_gm_wounds_a_character_and_reads_it_back(sr2: Table) -> None:
    response = sr2.act({"type": "wound", "severity": "S", "rolls": {"body_check": [6, 6, 6, 1, 1]}})
    assert response.status_code == 201, response.content
    character = sr2.gm.get(sr2.character_url()).json()
    assert character["sheet"]["physical"] == {"boxes": 6, "level": "S"}
