"""analysis page (being built)."""

import streamlit as st

st.title("analysis")
st.info("This page is being built.")
