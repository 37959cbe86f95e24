"""Headless Chromium through Selenium with Debian's chromium-driver, for the browser tests."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

DRIVER = Path("/usr/bin/chromedriver")


def chromium(profile: Path, downloads: Path | None = None) -> Any:
    """A headless Chromium with its own ``profile`` folder, offline, saving downloads into ``downloads``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"
    os.environ["SE_AVOID_STATS"] = "true"
    options = webdriver.ChromeOptions()
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                     f"--user-data-dir={profile}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console: Content-Security-Policy refusals
    if downloads is not None:
        options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                                  "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(executable_path=str(DRIVER)), options=options)
    if downloads is not None:
        driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    return driver
