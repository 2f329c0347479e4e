"""The resolution engine the languages share."""
