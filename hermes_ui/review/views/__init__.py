"""Review views, one module per page group: queues, reviewing, rubrics, notes, rules, datasets."""
