"""What the dashboard has seen a Hermes endpoint actually do, where releases differ.

The contract states rules (a DELETE cascades to delegate sessions); older
releases break some of them (hermes-agent 0.15.2 does not cascade). An
observation is one fact per endpoint identity, the latest reading wins, and
it names where it came from (a deletion case, an integration check), so a
page can warn before an approval instead of promising the contract's rule.
"""
