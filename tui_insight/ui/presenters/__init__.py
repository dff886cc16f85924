"""What the views show as text, rows and read-outs: pure functions of (state, data), no Textual."""
