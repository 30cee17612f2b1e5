"""Selenium's Python bindings against axgate's AT-SPI backend: a real GTK3 app
(tests/desktop/apps/form.py) driven as a Mac2 suite drives a Mac app. The session attaches to
the app by its name; a text field found by class name gets typed into, the Greet button is
found by xpath and clicked, and the status label it changes is read back by a predicate.
tests/desktop/webdriver.rs (in tests/atspi.rs, on the headless desktop) asserts the lines and
the app's own change log.

    WD_TOKEN=... python atspi_check.py http://127.0.0.1:PORT
"""

from __future__ import annotations

import sys

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.options import ArgOptions
from selenium.webdriver.remote.client_config import AuthType, ClientConfig

import wdcheck
from selenium_suite import AsIs

APP = "axgate-form"


def run(base: str, token: str) -> None:
    options = ArgOptions()
    options.set_capability("platformName", "mac")
    options.set_capability("appium:automationName", "Mac2")
    options.set_capability("appium:bundleId", APP)
    config = ClientConfig(remote_server_addr=base, auth_type=AuthType.BEARER, token=token, timeout=30)
    driver = webdriver.Remote(
        command_executor=base, options=options, client_config=config, locator_converter=AsIs()
    )
    try:
        driver.implicitly_wait(5)
        field = driver.find_element(By.CLASS_NAME, "XCUIElementTypeTextField")
        field.click()
        field.send_keys("Ada")
        greet = driver.find_element(By.XPATH, '//XCUIElementTypeButton[@title="Greet"]')
        name = greet.tag_name
        greet.click()
        status = driver.find_element(
            "-ios predicate string", 'elementType == 48 AND title BEGINSWITH "Hello"'
        )
        wdcheck.report(
            "greet",
            typed=field.text,
            button=name,
            status=status.text,
            source_root=wdcheck.root_of(driver.page_source),
        )
    finally:
        driver.quit()
    wdcheck.report("ended")


if __name__ == "__main__":
    sys.exit(wdcheck.main("atspi_check.py", run))
