"""Review views, one module per page group (queues and reviewing, rubrics, notes, rules, datasets)."""
