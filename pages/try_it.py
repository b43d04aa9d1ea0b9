"""try_it page (being built)."""

import streamlit as st

st.title("try_it")
st.info("This page is being built.")
