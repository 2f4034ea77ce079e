"""E-mail notifications: the events that wait for someone, sent at once or in a daily digest."""
