"""Everything about summary logs: reading, the shared cache and the queries. No UI here."""
