export function renderComment(list, comment) {
  const item = document.createElement('li');
  const author = document.createElement('strong');
  author.textContent = comment.author;
  item.appendChild(author);
  item.appendChild(document.createTextNode(': ' + comment.text));
  list.appendChild(item);
}
