return 'from ./?.lua'
