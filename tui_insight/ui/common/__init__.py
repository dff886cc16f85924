"""Small helpers every part of the UI uses: formatting, colours, focus, filters, text from files."""
