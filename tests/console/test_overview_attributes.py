"""The device attributes in the console's Overview, in a real browser: the simulated DER
gives its vendor, model and serial number (group 0); the plain outstation, given none,
refuses group 0 and the card says so, with no error."""

from __future__ import annotations

from gridwire.simulator.attributes import SERIAL, VENDOR
from tests.console.browser import Watched
from tests.console.pages import WAIT_MS, open_console
from tests.console.site import Site


def test_device_attributes_read_from_the_overview(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "der", "overview")
    page.click(".pane-overview button[data-op='attributes']")
    vendor = page.locator(".pane-overview dd[data-attribute='vendor_name']")
    vendor.wait_for(timeout=WAIT_MS)
    assert vendor.inner_text() == VENDOR
    serial = page.locator(".pane-overview dd[data-attribute='serial_number']")
    assert serial.inner_text() == SERIAL
    assert "kW" in page.inner_text(".pane-overview dd[data-attribute='product_name']")
    assert "attributes" in watched.api_ops
    watched.shot("der-overview-attributes")

    page.click(".outstation[data-name='plain']")
    page.wait_for_selector(".top .title:text-is('plain')")
    page.click(".pane-overview button[data-op='attributes']")
    none = page.locator(".pane-overview [data-attributes='none']")
    none.wait_for(timeout=WAIT_MS)
    assert "OBJECT_UNKNOWN" in none.inner_text()
    watched.assert_clean()
