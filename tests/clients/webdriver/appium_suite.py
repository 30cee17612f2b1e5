"""The Appium Python client (Appium-Python-Client, with Mac2Options) runs the smaller Mac2-style
suite of wdcheck.py against axgate's demo TextEdit, connected as an existing Mac2 suite would
be: the base URL of axgate instead of Appium's, the bearer token through AppiumClientConfig.

    WD_TOKEN=... python appium_suite.py http://127.0.0.1:PORT
"""

from __future__ import annotations

import sys

from appium import webdriver
from appium.options.mac import Mac2Options
from appium.webdriver.client_config import AppiumClientConfig
from appium.webdriver.common.appiumby import AppiumBy
from selenium.common import exceptions
from selenium.webdriver.remote.client_config import AuthType

import wdcheck

BY = {
    "accessibility id": AppiumBy.ACCESSIBILITY_ID,
    "class name": AppiumBy.CLASS_NAME,
    "predicate string": AppiumBy.IOS_PREDICATE,
    "class chain": AppiumBy.IOS_CLASS_CHAIN,
    "xpath": AppiumBy.XPATH,
}


def run(base: str, token: str) -> None:
    options = Mac2Options()
    options.bundle_id = "com.apple.TextEdit"
    config = AppiumClientConfig(
        remote_server_addr=base, auth_type=AuthType.BEARER, token=token, timeout=30
    )
    driver = webdriver.Remote(base, options=options, client_config=config)
    try:
        wdcheck.suite(driver, BY, exceptions)
    finally:
        driver.quit()
    wdcheck.report("ended")


if __name__ == "__main__":
    sys.exit(wdcheck.main("appium_suite.py", run))
