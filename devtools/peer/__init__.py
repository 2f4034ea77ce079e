"""Offline demo/test peer: stub model server, Hermes launcher and seeder."""
