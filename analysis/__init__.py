"""Win chances, luck and decision quality of race board games, computed from the domain alone."""
