"""pytest plugin entry point (registered as ``honcho_contract`` via ``pytest11``)."""
