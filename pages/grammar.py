"""grammar page (being built)."""

import streamlit as st

st.title("grammar")
st.info("This page is being built.")
