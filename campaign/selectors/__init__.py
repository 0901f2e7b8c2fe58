"""The reads: every query the pages and the answers make, each returning rows or objects (a campaign carries its
`Ruleset` as `Campaign.rules`, never a slug to look up), for `campaign.presenters` to word.

- `access`: who may see and do what (the campaign and the role, the character, the one-query stamp);
- `campaigns`: a user's campaigns and invitations, a campaign's members, its clock's next timers, the counts one
  user's creations are limited by, and what the campaign asks the table;
- `characters`: the characters a reader may see (the API's list, the board's cards, the party), names for forms;
- `history`: a character's history and a campaign's feed by pages, GM notes, what undo would take back;
- `board`: what the GM's board and its ETag are made of; `jobs`: the clock's and the imports' jobs;
- `accounts`: the user of an API token; `cursors`: the sealed cursors of a player's pages.
"""
