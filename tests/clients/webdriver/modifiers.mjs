// The steps of suite.mjs that need Mac2's input commands: the text view's context menu by
// `macos: rightClick` and by a Control-held W3C pointer click, keys with modifiers through
// `macos: keys` (Command-A, Command-X) and through W3C key actions (Command-V), and the
// clipboard between them through `macos: getClipboard`.

import { Key } from 'webdriverio';
import { report } from './verdict.mjs';

const COMMAND = 1 << 4;
// The context menu's Copy (the Edit menu has one too, always in the tree while closed).
const MENU_ITEM =
  '-ios class chain:**/XCUIElementTypeMenu[`identifier == "text_context_menu"`]/XCUIElementTypeMenuItem[`title == "Copy"`]';

// Whether the context menu's Copy item is there now.
async function menuOpen(browser) {
  return browser.$(MENU_ITEM).isExisting();
}

// Closes the context menu by choosing Copy (which copies the text view's text).
async function chooseCopy(browser) {
  await browser.$(MENU_ITEM).click();
}

export async function modifiers(browser) {
  const text = await browser.$('~First Text View');
  await text.setValue('Hello keys');

  await browser.execute('macos: rightClick', { elementId: text.elementId });
  const byRightClick = await menuOpen(browser);
  await chooseCopy(browser);
  const closed = !(await menuOpen(browser));

  // Control held while the pointer clicks: macOS's right click.
  await browser.performActions([
    { type: 'key', id: 'keyboard', actions: [{ type: 'keyDown', value: '\uE009' }] },
    {
      type: 'pointer',
      id: 'mouse',
      parameters: { pointerType: 'mouse' },
      actions: [
        { type: 'pointerMove', duration: 0, origin: { 'element-6066-11e4-a52e-4f735466cecf': text.elementId }, x: 0, y: 0 },
        { type: 'pointerDown', button: 0 },
        { type: 'pointerUp', button: 0 },
      ],
    },
  ]);
  await browser.releaseActions();
  const byCtrlClick = await menuOpen(browser);
  await chooseCopy(browser);

  await browser.execute('macos: keys', {
    elementId: text.elementId,
    keys: [
      { key: 'a', modifierFlags: COMMAND },
      { key: 'x', modifierFlags: COMMAND },
    ],
  });
  const afterCut = await text.getText();
  const clipboard = await browser.execute('macos: getClipboard', {});
  await text.click();
  await browser.keys([Key.Command, 'v']);
  const afterPaste = await text.getText();
  report('modifiers', {
    by_right_click: byRightClick,
    closed,
    by_ctrl_click: byCtrlClick,
    after_cut: afterCut,
    clipboard: Buffer.from(String(clipboard), 'base64').toString('utf8'),
    after_paste: afterPaste,
  });
}
