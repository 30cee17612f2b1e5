"""Selenium's Python bindings (a plain webdriver.Remote, no Appium) run the smaller Mac2-style
suite of wdcheck.py against axgate's demo TextEdit: Mac2 capabilities on generic options, the
bearer token through ClientConfig. Selenium turns `id`, `name` and `class name` into CSS
selectors, which no Mac2 server serves; a LocatorConverter that passes strategies through as
they are (what the Appium client installs) makes Selenium send them unchanged.

    WD_TOKEN=... python selenium_suite.py http://127.0.0.1:PORT
"""

from __future__ import annotations

import sys

from selenium import webdriver
from selenium.common import exceptions
from selenium.webdriver.common.by import By
from selenium.webdriver.common.options import ArgOptions
from selenium.webdriver.remote.client_config import AuthType, ClientConfig
from selenium.webdriver.remote.locator_converter import LocatorConverter

import wdcheck

BY = {
    "accessibility id": "accessibility id",
    "class name": By.CLASS_NAME,
    "predicate string": "-ios predicate string",
    "class chain": "-ios class chain",
    "xpath": By.XPATH,
}


class AsIs(LocatorConverter):
    """Sends every strategy as named, as Appium's client does."""

    def convert(self, by, value):  # noqa: ANN001, ANN201 - Selenium's signature
        return by, value


def run(base: str, token: str) -> None:
    options = ArgOptions()
    options.set_capability("platformName", "mac")
    options.set_capability("appium:automationName", "Mac2")
    options.set_capability("appium:bundleId", "com.apple.TextEdit")
    config = ClientConfig(remote_server_addr=base, auth_type=AuthType.BEARER, token=token, timeout=30)
    driver = webdriver.Remote(
        command_executor=base, options=options, client_config=config, locator_converter=AsIs()
    )
    try:
        wdcheck.suite(driver, BY, exceptions, plain_selenium=True)
    finally:
        driver.quit()
    wdcheck.report("ended")


if __name__ == "__main__":
    sys.exit(wdcheck.main("selenium_suite.py", run))
