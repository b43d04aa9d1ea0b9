"""Deep link /doctor on a server's first run: hand over to app.py's navigation.

Streamlit's first script run after the server starts resolves the URL against the files
in pages/ (its behaviour before st.navigation) and shows "Page not found" when none is
named like the URL. This file carries the name; app.py's navigation then shows the
Doctor page (pages/*_page.py).
"""

import app

app.main()
