// A Mac2-style suite run by WebdriverIO (standalone `remote()`) against axgate's demo TextEdit,
// as an existing Mac2 suite would run: Mac2 capabilities, the base URL of the server, the bearer
// token as a header. Finds by every strategy, acts, reads, page source, screenshots, a stale
// element, the W3C errors as WebdriverIO shows them, the context menu and keys with
// modifiers (modifiers.mjs), and two sessions at once on two apps.
// Prints one JSON line per step (verdict.mjs); tests/it/webdriver/clients.rs asserts them.
//
//   WD_TOKEN=... node suite.mjs http://127.0.0.1:PORT

import { remote } from 'webdriverio';
import { modifiers } from './modifiers.mjs';
import { png, report, verdict } from './verdict.mjs';

// The options an existing suite passes to remote(): only the base URL and the header differ.
function options(base, token, bundleId) {
  return {
    protocol: base.protocol.replace(':', ''),
    hostname: base.hostname,
    port: Number(base.port),
    path: '/',
    headers: { Authorization: `Bearer ${token}` },
    logLevel: 'silent',
    connectionRetryCount: 0,
    waitforTimeout: 2000,
    capabilities: {
      platformName: 'mac',
      'appium:automationName': 'Mac2',
      'appium:bundleId': bundleId,
    },
  };
}

// The W3C error a protocol command raised, as WebdriverIO names it.
async function raised(promise) {
  try {
    await promise;
    return null;
  } catch (error) {
    return error?.name ?? String(error);
  }
}

async function finds(browser) {
  const strategies = {
    'accessibility id': '~First Text View',
    'class name': 'XCUIElementTypeTextView',
    'predicate string': '-ios predicate string:elementType == 52 AND identifier BEGINSWITH "First"',
    'class chain': '-ios class chain:**/XCUIElementTypeScrollView/XCUIElementTypeTextView',
    xpath: '//XCUIElementTypeWindow//XCUIElementTypeTextView[@identifier="First Text View"]',
  };
  const found = {};
  for (const [strategy, selector] of Object.entries(strategies)) {
    const element = await browser.$(selector);
    found[strategy] = (await element.isExisting()) ? await element.getAttribute('identifier') : null;
  }
  const markers = await browser.$$(
    '-ios class chain:**/XCUIElementTypeRuler/XCUIElementTypeRulerMarker[`label == "left tab stop"`]',
  );
  const checkBoxes = await browser.$$('//XCUIElementTypeCheckBox');
  const predicates = await browser.$$(
    '-ios predicate string:elementType IN {12, 14} AND label CONTAINS[c] "TYPE"',
  );
  // From an element: the format bar's radio group, then its buttons.
  const group = await browser.$('~alignment');
  const radios = await group.$$('XCUIElementTypeRadioButton');
  report('find', {
    found,
    tab_stops: markers.length,
    check_boxes: (await checkBoxes.map((c) => c.getAttribute('identifier'))).join(','),
    predicate: (await predicates.map((p) => p.getAttribute('identifier'))).join(','),
    radios: radios.length,
  });
}

async function interactions(browser) {
  const text = await browser.$('~First Text View');
  await text.click();
  await text.setValue('Hello axgate');
  const typed = await text.getText();
  await text.addValue(', again');
  const added = await text.getText();
  await text.clearValue();
  const cleared = await text.getText();
  const bold = await browser.$('~bold');
  const typeface = await browser.$('~typeface');
  const before = await typeface.getAttribute('value');
  await bold.click();
  await browser.$('~italic').click();
  const after = await typeface.getAttribute('value');
  report('interact', {
    typed,
    added,
    cleared,
    before,
    after,
    bold_value: await bold.getAttribute('value'),
  });
}

async function reads(browser) {
  const typeface = await browser.$('~typeface');
  const left = await browser.$('~align_left');
  const center = await browser.$('~align_center');
  report('read', {
    label: await typeface.getAttribute('label'),
    element_type: await typeface.getAttribute('elementType'),
    frame: await typeface.getAttribute('frame'),
    name: await typeface.getTagName(),
    location: await typeface.getLocation(),
    size: await typeface.getSize(),
    enabled: await typeface.isEnabled(),
    displayed: await typeface.isDisplayed(),
    left_selected: await left.isSelected(),
    center_selected: await center.isSelected(),
  });
}

async function sourceAndScreenshots(browser) {
  const source = await browser.getPageSource();
  const root = source.match(/<(XCUIElement\w+)/)?.[1];
  const screen = png(await browser.takeScreenshot());
  const typeface = await browser.$('~typeface');
  const element = png(await browser.takeElementScreenshot(typeface.elementId));
  report('source', {
    xml: source.startsWith('<?xml'),
    root,
    has_duplicate: source.includes('identifier="duplicateDocument:"'),
    screen,
    element,
  });
}

// A menu item found while its menu is open is stale once choosing it closed the menu; a
// missing element is WebdriverIO's "no such element"; the protocol commands show the W3C names.
async function staleAndErrors(browser) {
  await browser.$('~typeface').click();
  const item = await browser.$('-ios predicate string:elementType == 54 AND title == "Light"');
  const id = item.elementId;
  await item.click();
  const value = await browser.$('~typeface').getAttribute('value');
  const stale = await raised(browser.getElementText(id));
  // WebdriverIO answers a find that matches nothing with the W3C error object, not a throw.
  const missing = (await browser.findElement('accessibility id', 'no-such-thing'))?.error ?? null;
  const bad = await raised(browser.findElement('-ios predicate string', 'label ==='));
  const exists = await browser.$('~no-such-thing').isExisting();
  report('errors', { value, stale, missing, bad, exists });
}

// A second session on the Form while the first one is on TextEdit, both driven at once.
async function twoSessions(base, token, browser) {
  const form = await remote(options(base, token, 'dev.axgate.demo.form'));
  try {
    const [formName, editType] = await Promise.all([
      (async () => {
        const name = await form.$('~name');
        await name.setValue('Ada');
        return name.getText();
      })(),
      (async () => {
        const text = await browser.$('~First Text View');
        await text.setValue('parallel');
        return text.getText();
      })(),
    ]);
    const crossed = await form.$('~First Text View').isExisting();
    report('parallel', {
      sessions: new Set([form.sessionId, browser.sessionId]).size,
      form: formName,
      textedit: editType,
      crossed,
    });
  } finally {
    await form.deleteSession();
  }
}

async function suite(base, token) {
  const browser = await remote(options(base, token, 'com.apple.TextEdit'));
  try {
    report('session', {
      platformName: browser.capabilities.platformName,
      automationName: browser.capabilities.automationName,
      browserName: browser.capabilities.browserName ?? null,
    });
    await finds(browser);
    await interactions(browser);
    await reads(browser);
    await sourceAndScreenshots(browser);
    await staleAndErrors(browser);
    await modifiers(browser);
    await twoSessions(base, token, browser);
  } finally {
    await browser.deleteSession();
  }
  report('ended');
}

process.exitCode = await verdict('suite.mjs', suite, 120_000);
