"""Path converter for database ids: at most 18 digits, so a huge number is a 404, never a database overflow."""


class IdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)
