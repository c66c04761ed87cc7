"""Helpers the real-client checks share."""

import urllib.error
import urllib.request


def fetch(url, timeout=60):
    """GET `url`: (status, Content-Type, body), an HTTP error's included."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read()
