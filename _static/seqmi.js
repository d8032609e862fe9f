// The scoreboard's claims table: two menus above it show only the claims of one paper
// and/or one verdict, and say how many are shown. Plain DOM, no network: the book reads
// offline. Columns: id, paper, kind, verdict, run, chapter.
document.addEventListener("DOMContentLoaded", () => {
  const table = document.querySelector(".scoreboard-claims table");
  if (!table) return;
  const rows = [...table.tBodies[0].rows];
  const column = { paper: 1, verdict: 3 };
  // a verdict is its badge's text: the mark of a rule edited after the data stands beside it
  const text = (row, name) => {
    const cell = row.cells[column[name]];
    return (cell.querySelector(".sd-badge") || cell).innerText.trim();
  };
  const bar = document.createElement("form");
  bar.className = "scoreboard-filter";
  const menus = {};
  for (const name of Object.keys(column)) {
    const menu = document.createElement("select");
    menu.name = name;
    menu.setAttribute("aria-label", `show the claims of one ${name}`);
    const values = [...new Set(rows.map((row) => text(row, name)))];
    for (const value of ["", ...values]) {
      menu.add(new Option(value || `every ${name}`, value));
    }
    menus[name] = menu;
    const label = document.createElement("label");
    label.append(`${name[0].toUpperCase()}${name.slice(1)}: `, menu);
    bar.append(label, " ");
  }
  const count = document.createElement("span");
  count.className = "scoreboard-count";
  bar.append(count);
  const update = () => {
    let shown = 0;
    for (const row of rows) {
      const keep = Object.entries(menus).every(([name, menu]) => !menu.value || text(row, name) === menu.value);
      row.hidden = !keep;
      shown += keep;
    }
    count.textContent = `${shown} of ${rows.length} claims shown`;
  };
  bar.addEventListener("change", update);
  table.closest(".scoreboard-claims").before(bar);
  update();
});
