"""Drives the Herald Console in Debian's chromium (headless, through chromium-driver) with
Selenium, against the real executables, as an operator would: sign in (a wrong key and a key
without the console scope are refused), send a test push and watch it become delivered, find
a device by the end of its token, mute a channel and see the next chat message filtered,
flip the network switch, replay a dead letter and see it delivered. Saves a screenshot of
every page (1280 px wide, a few at 390 px) in the screenshots folder.

Usage: console_browser.py REQUEST.json; the request names the console's URL, the app, the
keys, the device, the user, the dead letter and the screenshots folder. Prints one JSON
line with what it saw."""
import json
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

request = json.load(open(sys.argv[1]))
base = request["console"].rstrip("/")
shots = request["screenshots"]
os.makedirs(shots, exist_ok=True)
seen = {}

options = webdriver.ChromeOptions()
options.binary_location = request.get("chromium", "/usr/bin/chromium")
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900", "--lang=en-GB"]:
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service(request.get("chromedriver", "/usr/bin/chromedriver")), options=options)
wait = WebDriverWait(driver, 60, poll_frequency=0.2)


def text_of(selector):
    return driver.find_element(By.CSS_SELECTOR, selector).text


def until_text(selector, wanted, timeout=60):
    """Waits until an element's text contains `wanted`; answers that text. Read in the page,
    since the console redraws (a polling page replaces its table every second)."""
    find = "return [...document.querySelectorAll(arguments[0])].map(e => e.innerText).find(t => t.includes(arguments[1])) || null"
    return WebDriverWait(driver, timeout, poll_frequency=0.2).until(lambda d: d.execute_script(find, selector, wanted))


def heading(wanted):
    until_text("main h1", wanted)


def shot(name, width=1280):
    driver.set_window_size(width, 900)
    height = driver.execute_script("return Math.max(document.body.scrollHeight, document.documentElement.scrollHeight)")
    driver.set_window_size(width, min(max(height + 120, 600), 4000))
    time.sleep(0.2)  # the resize's reflow; no condition to wait for
    driver.save_screenshot(os.path.join(shots, f"{name}.png"))
    driver.set_window_size(1280, 900)


def go(path):
    """Follows the console's own link to `path` (a click, as a user would)."""
    driver.get(f"{base}/console/{path}")


def sign_in(app, key):
    go("")
    field = wait.until(lambda d: d.find_element(By.NAME, "app"))
    # The keyboard alone: the app field has focus, Tab to the key, Enter submits.
    assert driver.switch_to.active_element == field, "the sign-in form focuses the app field"
    field.send_keys(app)
    driver.switch_to.active_element.send_keys(Keys.TAB)
    driver.switch_to.active_element.send_keys(key, Keys.ENTER)


def send_sample(integration, path, screenshot=None):
    """Sends the user a sample of `integration` from the form; ends on the event's page."""
    driver.find_element(By.CSS_SELECTOR, "#nav a[href='/console/send']").click()
    heading("Send a test push")
    Select(driver.find_element(By.NAME, "integration")).select_by_value(integration)
    driver.find_element(By.NAME, "target").send_keys(request["user"])
    driver.find_element(By.CSS_SELECTOR, "#prepare button[type=submit]").click()
    wait.until(lambda d: d.find_element(By.NAME, "path").get_attribute("value") == path)
    if screenshot:
        shot(screenshot)
    driver.find_element(By.CSS_SELECTOR, "#send button[type=submit]").click()
    heading("Event")


try:
    # Sign in: an unknown key and a key without the console scope are refused.
    sign_in(request["app"], "not-a-key")
    seen["wrongKey"] = until_text("#sign-in-message", "401")
    go("")
    sign_in(request["app"], request["upstreamKey"])
    seen["withoutScope"] = until_text("#sign-in-message", "403")
    shot("sign-in")
    sign_in(request["app"], request["consoleKey"])
    heading("Overview")
    until_text("main", "Readiness of each service")
    seen["services"] = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "section[aria-labelledby=services] tbody tr")]
    seen["keyInStorage"] = driver.execute_script("return sessionStorage.getItem('herald.console.session') !== null")
    seen["keyInLocalStorage"] = driver.execute_script("return localStorage.length")

    # A test push from the form, followed live on the event's page.
    send_sample("event", "/events", screenshot="send")
    seen["testPushURL"] = driver.current_url
    seen["testPush"] = until_text("#event-status", "delivered")
    # Traced, the event's page links its trace in the viewer HERALD_CONSOLE_TRACE_URL names.
    until_text("#event-trace", "", timeout=60)
    links = driver.find_elements(By.CSS_SELECTOR, "#event-trace a")
    seen["traceLink"] = links[0].get_attribute("href") if links else driver.find_element(By.CSS_SELECTOR, "#event-trace").text
    shot("event")
    shot("event-390", width=390)

    # The events list shows it.
    driver.find_element(By.LINK_TEXT, "All events").click()
    heading("Events")
    seen["eventsListed"] = len(driver.find_elements(By.CSS_SELECTOR, "main tbody tr"))
    shot("events")

    # The device by the end of its token.
    driver.find_element(By.CSS_SELECTOR, "#nav a[href='/console/devices']").click()
    heading("Devices")
    Select(driver.find_element(By.NAME, "by")).select_by_value("tokenSuffix")
    seen["platforms"] = [option.get_attribute("value") for option in Select(driver.find_element(By.NAME, "platform")).options]
    driver.find_element(By.NAME, "q").send_keys(request["token"][-10:])
    driver.find_element(By.CSS_SELECTOR, "#device-search button[type=submit]").click()
    seen["deviceFound"] = until_text("main tbody", request["device"])
    shot("devices")
    driver.find_element(By.LINK_TEXT, request["device"]).click()
    heading("Device")
    seen["deviceToken"] = until_text("#device-token", request["token"][:6])
    seen["recent"] = until_text("section[aria-labelledby=recent]", "delivered")
    shot("device")

    # Mute a channel for the user, then the next chat message is filtered.
    driver.find_element(By.CSS_SELECTOR, "#nav a[href='/console/preferences']").click()
    heading("Preferences")
    driver.find_element(By.ID, "channel-user").send_keys(request["user"])
    driver.find_element(By.ID, "channel-id").send_keys(request["channel"])
    driver.find_element(By.ID, "channel-load").click()
    box = wait.until(lambda d: d.find_element(By.ID, "channel-enabled") if d.find_element(By.ID, "channel-enabled").is_displayed() else None)
    if box.is_selected():
        box.send_keys(Keys.SPACE)  # the keyboard toggles it
    driver.find_element(By.ID, "channel-save").click()
    seen["channel"] = until_text("#channel-preferences", "muted")
    send_sample("chat", "/upstra/events")
    seen["chatURL"] = driver.current_url
    seen["chat"] = until_text("#event-status", "filtered")
    # Two events now, a page at a time: the next page's link keeps the filters and carries the cursor.
    go("events?limit=1")
    heading("Events")
    first_page = until_text("main tbody", ":")
    driver.find_element(By.LINK_TEXT, "Older events").click()
    wait.until(lambda d: "cursor=" in d.current_url)
    second_page = until_text("main tbody", ":")
    seen["paged"] = first_page != second_page and len(driver.find_elements(By.CSS_SELECTOR, "main tbody tr")) == 1

    # The network switch, off and on again.
    driver.find_element(By.CSS_SELECTOR, "#nav a[href='/console/preferences']").click()
    heading("Preferences")
    until_text("#network-state", "are on")
    driver.find_element(By.ID, "network-toggle").click()
    seen["networkOff"] = until_text("#network-state", "are off")
    shot("preferences")
    shot("preferences-390", width=390)
    driver.find_element(By.ID, "network-toggle").click()
    seen["networkOn"] = until_text("#network-state", "are on")

    # A dead letter: listed with its reason, replayed, then delivered.
    driver.find_element(By.CSS_SELECTOR, "#nav a[href='/console/dead-letters']").click()
    heading("Dead letters")
    seen["deadLetter"] = until_text("main tbody", request["deadLetter"])
    until_text("main tbody", request["purgedLetter"])
    shot("dead-letters")
    # Show one: its headers and body.
    row = driver.find_element(By.CSS_SELECTOR, f"button.replay[data-id='{request['deadLetter']}']").find_element(By.XPATH, "./ancestor::tr")
    row.find_element(By.XPATH, ".//button[text()='Show']").click()
    seen["shown"] = until_text("#dead-letter-detail", "x-herald-reason")
    # Purge asks first: nothing goes until the confirmation.
    driver.find_element(By.CSS_SELECTOR, f"button.purge[data-id='{request['purgedLetter']}']").click()
    confirm = wait.until(lambda d: next((b for b in d.find_elements(By.CSS_SELECTOR, "button.danger") if b.is_displayed() and "for good" in b.text), None))
    seen["purgeAsked"] = confirm.text
    confirm.click()
    seen["purged"] = until_text("#dead-letter-message", "Purged")
    seen["purgedGone"] = request["purgedLetter"] not in driver.execute_script("return document.querySelector('main tbody')?.innerText || ''")
    driver.find_element(By.CSS_SELECTOR, f"button.replay[data-id='{request['deadLetter']}']").click()
    seen["replayed"] = until_text("#dead-letter-message", "Replayed")
    go(f"events/{request['deadLetter']}")
    heading("Event")
    seen["replayDelivered"] = until_text("#event-status", "delivered")

    # An ingest URL: made (its path shown once), rotated, revoked after a confirmation.
    driver.find_element(By.CSS_SELECTOR, "#nav a[href='/console/ingest']").click()
    heading("Ingest URLs")
    until_text("main", "Make an ingest URL")
    driver.find_element(By.NAME, "id").send_keys("console-verity")
    Select(driver.find_element(By.NAME, "source")).select_by_value("evernym")
    driver.find_element(By.CSS_SELECTOR, "#ingest-create button[type=submit]").click()
    seen["ingestPath"] = until_text("#ingest-made-path", "/v1/ingest/hgi_")
    until_text("main tbody", "console-verity")
    shot("ingest")
    driver.find_element(By.CSS_SELECTOR, "button.rotate[data-id='console-verity']").click()
    # Read by script: the page is drawn anew when the answer comes, so an element found earlier goes stale.
    made_path = "return document.getElementById('ingest-made-path')?.textContent || ''"
    wait.until(lambda d: d.execute_script(made_path) not in ("", seen["ingestPath"]))
    seen["ingestRotated"] = text_of("#ingest-made-path")
    driver.find_element(By.CSS_SELECTOR, "button.revoke[data-id='console-verity']").click()
    confirm = wait.until(lambda d: next((b for b in d.find_elements(By.CSS_SELECTOR, "button.danger") if b.is_displayed() and "Yes, revoke" in b.text), None))
    confirm.click()
    seen["ingestRevoked"] = until_text("#ingest-message", "Revoked")

    # The overview, now with counts in the chart.
    go("")
    heading("Overview")
    until_text("main", "Readiness of each service")
    seen["delivered"] = text_of("#total-delivered")
    shot("overview")
    shot("overview-390", width=390)
    seen["pageErrors"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE" and "401" not in entry["message"] and "403" not in entry["message"]]
finally:
    seen["url"] = driver.current_url
    if "replayDelivered" not in seen:
        driver.save_screenshot(os.path.join(shots, "failure.png"))
        seen["page"] = driver.find_element(By.TAG_NAME, "body").text[:2000]
    driver.quit()
print(json.dumps(seen))
