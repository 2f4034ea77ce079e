"""Review views, one module per page group (queues, rubrics, notes, rules, datasets)."""
