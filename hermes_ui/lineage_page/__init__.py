"""The lineage page: views, routes, the picture of a session's family and its drawing.

A feature on top of ``hermes_ui.lineage`` (pure classification and graph
building) and ``hermes_ui.index`` (the rows it draws).
"""
